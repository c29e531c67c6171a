"""The site: the strict build of every edition (`build`, `stamp`, `sphinx_build`), its URLs
(`layout`), the catalogs (`catalogs`), and the Sphinx extensions that are the book's as a whole
(languages, theme, executed notebooks, the code map, exercise downloads, provenance markers)."""
