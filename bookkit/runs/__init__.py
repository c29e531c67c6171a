"""The book's runs of the engine: the relocation methods as data (`methods`), the runner and its
records (`scenarios`), every combination the explorer offers (`combinations`), and the named cases
whose values the questions' keys are (`question_cases`)."""
