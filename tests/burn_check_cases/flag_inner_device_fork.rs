// Built on device.inner() (the plain device under autodiff), then forked: fork keeps it plain.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = ModelConfig::new().init(&device.inner());
    let mut model = model.fork(&device); //~ plain-without-train
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
