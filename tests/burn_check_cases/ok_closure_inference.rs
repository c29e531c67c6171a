// A closure moves the model to the CPU to predict; nothing is backpropagated.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&gpu);
    let predict = |x: Tensor<2>| model.clone().to_device(&Device::flex()).forward(x);
    for sample in samples {
        println!("{}", predict(sample));
    }
}
