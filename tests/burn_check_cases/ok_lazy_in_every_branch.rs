// Every branch builds the model right there and nothing reads it before the move: a lazy model, which
// the move only sends to the new device (chapter 10's fix 3), through a branch, a tuple and an Option.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let cpu = Device::flex().autodiff();
    let model = if fresh() { ModelConfig::new().init(&cpu) } else { ModelConfig::new().init(&gpu) };
    let mut model = model.to_device(&gpu);
    let (mut head, _) = (HeadConfig::new().init(&cpu), 3);
    head = head.to_device(&gpu);
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let grads = GradientsParams::from_grads(model.forward_loss(batch).backward(), &model);
        assert_eq!(grads.len(), 4);
        model = optim.step(1e-3, model, grads);
        let grads = GradientsParams::from_grads(head.forward_loss(batch).backward(), &head);
        assert_eq!(grads.len(), 2);
        head = optim.step(1e-3, head, grads);
    }
}
