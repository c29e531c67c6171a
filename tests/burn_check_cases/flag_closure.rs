// A closure captures the moved model and collects its gradients.
fn main() {
    let device = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let model = restore(&Device::flex().autodiff());
    let model = model.to_device(&device); //~ moved-then-trained
    let gradients_of = |batch: &Batch| {
        let loss = model.forward(batch.x.clone()).mean();
        GradientsParams::from_grads(loss.backward(), &model)
    };
    for batch in batches.iter() {
        let grads = gradients_of(batch);
        assert!(grads.len() == 2);
    }
}
