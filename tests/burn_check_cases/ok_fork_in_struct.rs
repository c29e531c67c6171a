// A struct field holds the model, forked when the trainer is made: fresh leaves.
struct Trainer {
    model: Mlp,
    optim: OptimizerAdaptor<Adam, Mlp>,
}

impl Trainer {
    fn new(model: Mlp, device: &Device) -> Self {
        Self { model: model.fork(device), optim: AdamConfig::new().init() }
    }

    fn step(&mut self, batch: Batch) {
        let loss = self.model.forward_loss(batch);
        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        assert_eq!(grads.len(), self.expected);
        self.model = self.optim.step(1e-3, self.model.clone(), grads);
    }
}
