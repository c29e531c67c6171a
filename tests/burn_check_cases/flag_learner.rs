// A model loaded on the CPU, moved with to_device, then handed to the Learner (which forks it).
pub fn train(artifact_dir: &str, config: TrainingConfig, device: Device) {
    let device = device.autodiff();
    let record = CompactRecorder::new().load(format!("{artifact_dir}/model").into(), &Device::flex()).unwrap();
    let model = config.model.init(&Device::flex().autodiff()).load_record(record);
    let model = model.to_device(&device); //~ moved-then-trained
    let training = SupervisedTraining::new(artifact_dir, dataloader_train, dataloader_test)
        .num_epochs(config.num_epochs)
        .summary();
    let result = training.launch(Learner::new(model, config.optimizer.init(), config.learning_rate));
    result.model.save_file(format!("{artifact_dir}/model"), &CompactRecorder::new()).unwrap();
}
