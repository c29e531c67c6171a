// A model from an autodiff device, moved, then .train(): .train() refuses an autodiff model (chapter 10).
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = Mlp::load("w.bpk", &Device::flex().autodiff()).to_device(&gpu).train(); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
