/** The floor of `svc --version`: a compiled binary that prints a version and exits. */
process.stdout.write("bare 0.0.0\n");
