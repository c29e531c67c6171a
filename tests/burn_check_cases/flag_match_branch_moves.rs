// A `match` on the run's settings moves the model in one arm and forks it in another.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let loaded = Mlp::load("weights.bpk", &Device::flex().autodiff());
    let mut model = match settings.placement {
        Placement::Move => loaded.to_device(&gpu), //~ moved-then-trained
        Placement::Fork => loaded.fork(&gpu),
        Placement::Stay => loaded,
    };
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
}
