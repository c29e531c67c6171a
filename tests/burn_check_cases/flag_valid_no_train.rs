// A model from valid() (plain) goes back to training without .train().
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    let snapshot = model.valid(); //~ plain-without-train
    evaluate(&snapshot);
    let mut model = snapshot;
    for _ in 0..3 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
}
