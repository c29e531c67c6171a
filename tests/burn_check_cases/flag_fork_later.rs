// The moved model is kept in a binding, and forked a few lines later.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let cpu_model = load_model(&Device::flex().autodiff());
    let moved = cpu_model.to_device(&gpu);
    println!("moved to {:?}", gpu);
    let model = moved.fork(&gpu); //~ fork-after-to_device
    fit(model);
}
