// A method moves the model and hands it to another method of the same type, which trains it.
impl Runner {
    fn run(&mut self, model: Mlp) -> Mlp {
        let model = model.to_device(&self.device); //~ moved-then-trained
        self.train_epoch(model)
    }

    fn train_epoch(&mut self, mut model: Mlp) -> Mlp {
        for batch in self.loader.iter() {
            let loss = model.forward(batch.x).mean();
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            if grads.len() != self.n_tensors {
                panic!("gradients missing");
            }
            model = self.optim.step(self.lr, model, grads);
        }
        model
    }
}
