// A type's own to_device that moves its fields (Burn's DQN example does this); nothing trains here.
impl Policy for DqnPolicy {
    fn to_device(self, device: &Device) -> Self {
        Self { model: self.model.to_device(device) }
    }

    fn update(&mut self, update: DqnState) {
        self.model = update.model;
    }
}
