// to_device for inference only: the moved model is never trained.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice);
    let model = ModelConfig::new().init(&Device::flex()).load_record(record);
    let model = model.to_device(&gpu);
    let output = model.forward(input.to_device(&gpu));
    println!("{}", output.argmax(1));
}
