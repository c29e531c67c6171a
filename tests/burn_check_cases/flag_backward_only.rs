// No optimizer: the moved model's forward pass is backpropagated, and its gradients are read.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = initialized_model(&Device::flex().autodiff());
    let moved = model.to_device(&gpu); //~ moved-then-trained
    let loss = moved.forward(x).mean();
    let grads = loss.backward();
    let weight_grad = moved.weight.grad(&grads);
    println!("{weight_grad:?}");
}
