# Python with dpinfer is needed by every test.  CI sets DPINFER_R_REQUIRE_PYTHON=1, so a
# missing Python fails there instead of skipping the whole suite.
skip_without_dpinfer <- function() {
  if (dp_available()) return(invisible(TRUE))
  if (nzchar(Sys.getenv("DPINFER_R_REQUIRE_PYTHON"))) {
    stop("DPINFER_R_REQUIRE_PYTHON is set but Python with dpinfer was not found: ", dp_python())
  }
  skip("Python with dpinfer was not found (set RETICULATE_PYTHON)")
}

# Python's dpinfer, called directly (not through this package): the reference side.
py_dpinfer <- function() reticulate::import("dpinfer", convert = TRUE)

# A seeded Tulap release made in Python, as the R package makes it.
py_release <- function(x, n, epsilon, seed) {
  py_dpinfer()$TulapReleaser(epsilon)$release(as.integer(x), as.integer(n), rng = as.integer(seed))
}
