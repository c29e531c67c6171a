"""Every picture the book draws: one palette (`palette`), the graph as data, layout and DOT
(`graph_data`, `graph_layout`, `graph_dot`, with `graph.snapshot` on top), its SVG (`render`, `dot`),
the article's flowchart, loss curves (`curves`, `font_metrics`), chapter 8's tabs and the tables."""
