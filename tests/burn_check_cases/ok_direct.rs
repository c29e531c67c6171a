// Built on the autodiff device it trains on: nothing to move.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    for step in 0..5 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4, "step {step}");
        model = optim.step(1e-3, model, grads);
    }
}
