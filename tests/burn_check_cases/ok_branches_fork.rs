// Every branch forks (or keeps the model where it was built): no branch moves with to_device.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&Device::flex().autodiff());
    let mut model = if use_gpu() { model.fork(&gpu) } else { model };
    let other = restored().map(|m| m.fork(&gpu)).unwrap_or_else(|| ModelConfig::new().init(&gpu));
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
    fit(other);
}

fn fit(mut model: Mlp) {
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert!(!grads.is_empty());
}
