// Only tensors move: each batch goes to the model's device.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let images = batch.images.to_device(&device);
        let targets = batch.targets.to_device(&device);
        let output = model.forward(images);
        let loss = CrossEntropyLoss::new(None, &output.device()).forward(output, targets);
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 6);
        model = optim.step(1e-3, model, grads);
    }
}
