// Generic code: B::Device::default() is the device of an autodiff backend here, not a plain device.
pub fn run<B: AutodiffBackend>(config: TrainingConfig) {
    let device = B::Device::default();
    let mut model = config.model.init::<B>(&device);
    let mut optim = config.optimizer.init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
    }
    let other = <B as Backend>::Device::default();
    let mut second = config.model.init::<B>(&other);
    let grads = GradientsParams::from_grads(second.forward_loss(batch()).backward(), &second);
    assert_eq!(grads.len(), 4);
    second = optim.step(1e-3, second, grads);
}
