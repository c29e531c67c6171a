// Built and moved to the same device before anything reads it: lazy, the move changes nothing.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device).to_device(&device);
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
