// Chapter 12's three checks, a fragment without `fn`: a fork, and the checks in the loop.
let mut model = model.fork(&device);
println!("require_grad {}", model.weight.is_require_grad()); // true?
let mut count = ParamTensors::default();
model.visit(&mut count);
let n_frozen = 0;
let n_trainable = count.total - n_frozen;
assert_eq!(count.require_grad, n_trainable, "not all Grad leaves");

for step in 0..5 {
    let output = model.forward(x.clone());
    let loss = MseLoss::new().forward(output, y.clone(), Reduction::Mean);
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    assert_eq!(grads.len(), n_trainable, "step {step}: gradients missing");
    model = optim.step(1e-1, model, grads);
}
