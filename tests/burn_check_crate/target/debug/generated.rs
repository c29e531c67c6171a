// Under target/: never read (it would be flagged if it were).
fn main() {
    let model = load_model(&Device::flex().autodiff()).to_device(&gpu);
    training::fit(model, &gpu);
}
