// A crate of two files: main.rs moves the model, training.rs trains it.
mod training;

fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = load_model(&Device::flex().autodiff());
    training::fit(model.to_device(&gpu), &gpu); //~ moved-then-trained
}
