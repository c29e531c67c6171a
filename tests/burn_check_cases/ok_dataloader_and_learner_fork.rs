// A custom learning strategy: the data loaders move, and the learner is forked (Burn's own way).
impl SupervisedLearningStrategy for MyStrategy {
    fn fit(&self, training_components: TrainingComponents, mut learner: Learner, dataloader_train: TrainLoader,
           dataloader_valid: ValidLoader) -> Learner {
        let dataloader_train = dataloader_train.to_device(&self.device);
        let dataloader_valid = dataloader_valid.to_device(&self.device.clone().inner());
        learner.fork(&self.device);
        run_epochs(&mut learner, dataloader_train, dataloader_valid);
        learner
    }
}
