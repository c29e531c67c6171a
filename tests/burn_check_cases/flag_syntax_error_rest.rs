// A file with a syntax error in one function: the other function is still read and flagged.
fn broken() {
    let x = ;
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&Device::flex().autodiff());
    let mut model = model.to_device(&gpu); //~ moved-then-trained
    let mut optim = AdamConfig::new().init();
    let loss = model.forward(x).mean();
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), 2);
    model = optim.step(1e-3, model, grads);
}
