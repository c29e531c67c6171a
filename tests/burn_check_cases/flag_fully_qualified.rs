// The fully qualified call `Module::to_device(model, &device)` is the same move.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &Device::flex().autodiff());
    let mut model = Module::to_device(model, &gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
