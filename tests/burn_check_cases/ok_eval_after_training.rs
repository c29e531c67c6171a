// After training: a plain copy for evaluation, moved to the CPU, never trained again.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    for _ in 0..3 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
    let model_valid = model.valid().to_device(&Device::flex());
    println!("{}", model_valid.forward(x_test));
}
