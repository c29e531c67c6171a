// A frozen part (no_grad) and a fork: leaves, some of them frozen on purpose.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let backbone = load_backbone(&Device::flex().autodiff()).no_grad();
    let mut model = Classifier { backbone, head: LinearConfig::new(512, 10).init(&gpu) }.fork(&gpu);
    let mut optim = AdamConfig::new().init();
    for _ in 0..3 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2);
        model = optim.step(1e-3, model, grads);
    }
}
