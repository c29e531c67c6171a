// An `if let` binds a model and moves it: the binding is followed into its block.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let restored = Some(Mlp::load("weights.bpk", &Device::flex().autodiff()));
    if let Some(model) = restored {
        let mut model = model.to_device(&gpu); //~ moved-then-trained
        let mut optim = AdamConfig::new().init();
        let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
}
