// Distillation: the teacher is moved for inference and its output detached; only the student trains.
fn main() {
    let gpu = Device::metal(DeviceKind::DefaultDevice).autodiff();
    let teacher = Teacher::load("teacher.bpk", &Device::flex().autodiff()).to_device(&gpu);
    let mut student = StudentConfig::new().init(&gpu);
    let mut optim = AdamConfig::new().init();
    for batch in loader.iter() {
        let soft = teacher.forward(batch.x.clone()).detach();
        let hard = teacher.forward(batch.x.clone()).inner();
        let logits = student.forward(batch.x);
        let loss = kd_loss(logits, soft) + ce(hard);
        let grads = GradientsParams::from_grads(loss.backward(), &student);
        assert_eq!(grads.len(), 4);
        student = optim.step(1e-3, student, grads);
    }
}
