// Built lazily, then used once (which builds the parameters), then moved: no longer lazy.
fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = LinearConfig::new(4, 1).init(&cpu);
    let probe = model.forward(x.clone());
    println!("{probe}");
    let model = model.to_device(&gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 2);
    let _model = optim.step(1e-2, model, grads);
}
