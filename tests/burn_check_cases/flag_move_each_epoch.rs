// `let mut model`, moved "in case" to the device it was loaded on, at the start of every epoch.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = load_model(&device);
    let mut optim = AdamConfig::new().init();
    for epoch in 0..10 {
        model = model.to_device(&device); //~ same-device-move
        for batch in loader.iter() {
            let loss = model.forward(batch.x).mean();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            assert_eq!(grads.len(), 2, "epoch {epoch}");
            model = optim.step(1e-3, model, grads);
        }
    }
}
