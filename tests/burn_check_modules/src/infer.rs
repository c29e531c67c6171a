// Predicts with the model it is given: nothing is trained.
pub fn run(model: Mlp) {
    println!("{}", model.forward(probe()));
}
