// Built on a device the code names plain (no .autodiff()), then trained there.
fn main() {
    let cpu = Device::flex();
    let mut model = LinearConfig::new(4, 1).init(&cpu); //~ plain-without-train
    let mut optim = AdamConfig::new().init();
    for step in 0..5 {
        let loss = model.forward(x.clone()).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &model);
        assert_eq!(grads.len(), 2, "step {step}");
        model = optim.step(1e-1, model, grads);
    }
}
