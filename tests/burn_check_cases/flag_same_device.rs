// A defensive move to the device the model was built (and loaded) on: still a move.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = ModelConfig::new().init(&device).load_record(record);
    let mut model = model.to_device(&device); //~ same-device-move
    let mut optim = AdamConfig::new().init();
    for _ in 0..10 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), n_params);
        model = optim.step(1e-3, model, grads);
    }
}
