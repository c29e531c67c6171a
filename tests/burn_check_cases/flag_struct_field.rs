// A struct field holds the model: moved when the trainer is made, trained in another method.
struct Trainer {
    model: Mlp,
    optim: OptimizerAdaptor<Adam, Mlp>,
}

impl Trainer {
    fn new(model: Mlp, device: &Device) -> Self {
        Self {
            model: model.to_device(device), //~ moved-then-trained
            optim: AdamConfig::new().init(),
        }
    }

    fn step(&mut self, batch: Batch) -> f32 {
        let loss = self.model.forward_loss(batch);
        let value = loss.clone().into_scalar();
        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        assert_eq!(grads.len(), self.expected);
        self.model = self.optim.step(1e-3, self.model.clone(), grads);
        value
    }
}
