// Code with a backtick and with characters outside the BMP before the move: the finding quotes it whole
// and counts columns in characters, as rustc does.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = Mlp::load("w`1😀.bpk", &Device::flex().autodiff()).to_device(&gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
