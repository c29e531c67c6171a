// `let mut model`, reassigned: built, loaded from a record, then moved; the last binding trains.
fn main() {
    let cpu = Device::flex().autodiff();
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let mut model = ModelConfig::new().init(&cpu);
    model = model.load_record(record);
    model = model.to_device(&gpu); //~ moved-then-trained
    let mut optim = SgdConfig::new().init();
    for step in 0..100 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2, "step {step}: gradients missing");
        model = optim.step(0.1, model, grads);
    }
}
