// A program that trains with Burn's Learner (this book's sketch, in the style of Burn's guide, not
// compiled). The model is built on the autodiff device and handed over as it is: the Learner places
// it with fork. Nothing here is flagged. Try moving the model with `to_device` before
// `Learner::new`, on a model loaded from a record, and check again.
pub fn train(artifact_dir: &str, config: TrainingConfig, device: Device) {
    let device = device.autodiff();
    device.seed(config.seed);

    let dataloader_train = DataLoaderBuilder::new(Batcher::default())
        .batch_size(config.batch_size)
        .shuffle(config.seed)
        .build(Dataset::train());
    let dataloader_valid = DataLoaderBuilder::new(Batcher::default())
        .batch_size(config.batch_size)
        .build(Dataset::test());

    let training = SupervisedTraining::new(artifact_dir, dataloader_train, dataloader_valid)
        .metrics((AccuracyMetric::new(), LossMetric::new()))
        .num_epochs(config.num_epochs)
        .summary();

    let model = config.model.init(&device);
    let result = training.launch(Learner::new(model, config.optimizer.init(), config.learning_rate));

    result.model.save_file(format!("{artifact_dir}/model"), &CompactRecorder::new()).unwrap();
}
