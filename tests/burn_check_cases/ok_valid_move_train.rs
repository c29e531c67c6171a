// The article's fix 2: a plain model moved, then .train().
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let plain = load_inference_model(&Device::flex());
    let mut model = plain.to_device(&device).train();
    let mut optim = AdamConfig::new().init();
    for step in 0..5 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2, "step {step}");
        model = optim.step(1e-1, model, grads);
    }
}
