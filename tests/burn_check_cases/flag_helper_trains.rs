// The moved model is handed to a function of the same file that trains its parameter.
fn fit(mut model: Mlp, data: &[Batch]) -> Mlp {
    let mut optim = AdamConfig::new().init();
    for batch in data { //~ no-step-0-check
        let output = model.forward(batch.x.clone());
        let loss = MseLoss::new().forward(output, batch.y.clone(), Reduction::Mean);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        model = optim.step(1e-3, model, grads);
    }
    model
}

fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model: Mlp = Mlp::load("weights.bpk", &Device::flex().autodiff());
    let trained = fit(model.to_device(&device), &data); //~ moved-then-trained
    trained.save("trained.bpk");
}
