// Burn's guide: the model is built on the autodiff device and handed to the Learner.
pub fn train(artifact_dir: &str, config: TrainingConfig, device: impl Into<Device>) {
    let device = device.into();
    device.seed(config.seed);
    let autodiff_device = device.autodiff();
    let training = SupervisedTraining::new(artifact_dir, dataloader_train, dataloader_test)
        .metrics((AccuracyMetric::new(), LossMetric::new()))
        .num_epochs(config.num_epochs)
        .summary();
    let model = config.model.init(&autodiff_device);
    let result = training.launch(Learner::new(model, config.optimizer.init(), config.learning_rate));
    result.model.into_record().save(format!("{artifact_dir}/model")).unwrap();
}
