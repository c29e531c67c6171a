// One function moves a model for evaluation; training uses fork.
fn evaluate(model: Mlp, device: &Device) -> f32 {
    let model = model.valid().to_device(device);
    model.forward(test_x()).mean().into_scalar()
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = load_model(&Device::flex().autodiff()).fork(&gpu);
    let mut optim = AdamConfig::new().init();
    for _ in 0..10 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2);
        model = optim.step(1e-3, model, grads);
    }
    println!("{}", evaluate(model, &Device::flex()));
}
