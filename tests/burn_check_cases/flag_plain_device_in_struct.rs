// A plain device kept in a struct's field: the model built on it trains without .train().
struct Setup {
    device: Device,
    epochs: usize,
}

fn main() {
    let setup = Setup { device: Device::flex(), epochs: 3 };
    let mut model = ModelConfig::new().init(&setup.device); //~ plain-without-train
    let mut optim = AdamConfig::new().init();
    let grads = GradientsParams::from_grads(model.forward_loss(batch()).backward(), &model);
    assert_eq!(grads.len(), 4);
    model = optim.step(1e-3, model, grads);
}
