// A DQN: the target network's output is cut from the graph (valid(), inner(), from_inner), only the
// policy network trains.
fn train(device: &Device) {
    let device = device.autodiff();
    let mut policy = DqnConfig::new().init(&device);
    let mut target_net = policy.clone().to_device(&device);
    let mut optim = AdamConfig::new().init();
    for (step, batch) in replay.iter().enumerate() {
        let next_q = target_net.valid().forward(batch.next_states.inner());
        let best = Tensor::from_inner(next_q.max_dim(1));
        let target = batch.rewards + best.mul_scalar(0.99);
        let q = policy.forward(batch.states).gather(1, batch.actions);
        let loss = MseLoss::new().forward(q, target, Reduction::Mean);
        let grads = GradientsParams::from_grads(loss.backward(), &policy);
        assert_eq!(grads.len(), 6);
        policy = optim.step(1e-3, policy, grads);
        if step % 100 == 0 {
            target_net = policy.clone().to_device(&device);
        }
    }
}
