// A copy moved to the CPU to be saved; the original keeps training.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&device);
    let mut optim = AdamConfig::new().init();
    for epoch in 0..3 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 4, "epoch {epoch}");
        model = optim.step(1e-3, model, grads);
        let exported = model.clone().to_device(&Device::flex());
        exported.save_file(format!("epoch-{epoch}"), &recorder).unwrap();
    }
}
