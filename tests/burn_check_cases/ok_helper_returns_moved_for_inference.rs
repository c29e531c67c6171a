// A helper moves a model to the CPU for serving and returns it: the moved model only predicts.
fn to_cpu(model: Mlp) -> Mlp {
    model.to_device(&Device::flex())
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&gpu);
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
    let served = to_cpu(model);
    println!("{}", served.forward(probe()));
}
