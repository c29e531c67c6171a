"""The chapters' questions: the `{question}` directive and its roles (`sphinx_ext`), the page script
that plays them and keeps the reader's progress (`questions.js`, `questions.css`); the keys are
computed by the cases of `bookkit.runs.question_cases`."""
