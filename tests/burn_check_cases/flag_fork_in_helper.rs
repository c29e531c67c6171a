// A helper forks what it is given; the caller gives it a to_device output.
fn prepare(model: Mlp, device: &Device) -> Mlp {
    model.fork(device)
}

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = Mlp::load("weights.bpk", &Device::flex().autodiff());
    let ready = prepare(model.to_device(&gpu), &gpu); //~ fork-after-to_device
    run(ready);
}
