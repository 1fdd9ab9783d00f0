# Finding the Python that has dpinfer, and calling it.

.dp <- new.env(parent = emptyenv())

#: the one command that installs the Python package, named in every "not found" message: dpinfer is
#: installed from its source checkout (no package registry has it), as the README's first command does
.install_command <- "python3 -m pip install -e /path/to/dpinfer   (the source checkout holding pyproject.toml)"

# The Python interpreter named by the `dpinfer` command on PATH (its "#!" line), or "".
.python_of_command <- function() {
  cmd <- Sys.which("dpinfer")
  if (!nzchar(cmd)) return("")
  first <- tryCatch(readLines(cmd, n = 1L, warn = FALSE), error = function(e) "")
  if (length(first) != 1L || !startsWith(first, "#!")) return("")
  path <- sub("^#!\\s*", "", first)
  if (file.exists(path)) path else ""
}

#' The Python interpreter dpinfer for R uses
#'
#' The first of: \code{getOption("dpinfer.python")}, the environment variable
#' \env{RETICULATE_PYTHON}, the Python of the \command{dpinfer} command on the
#' \env{PATH}; \code{""} when none is set (reticulate then chooses).
#'
#' @return A path, or \code{""}.
#' @export
dp_python <- function() {
  candidates <- c(getOption("dpinfer.python", ""), Sys.getenv("RETICULATE_PYTHON"), .python_of_command())
  candidates <- candidates[nzchar(candidates)]
  if (length(candidates)) candidates[[1L]] else ""
}

.not_found <- function(detail) {
  stop(paste0(
    "dpinfer for R needs the Python package dpinfer, ", detail, ". Install it from its source checkout ",
    "(the README's first command does the same in a venv):\n  ",
    .install_command, "\nthen point R at that Python before the first dpinfer call: ",
    "Sys.setenv(RETICULATE_PYTHON = \"/path/to/python\") or options(dpinfer.python = \"/path/to/python\") ",
    "(or put its `dpinfer` command on the PATH)."), call. = FALSE)
}

# The bridge module (inst/python/dpinfer_r.py), loaded once per session.
.bridge <- function() {
  if (!is.null(.dp$bridge)) return(.dp$bridge)
  python <- dp_python()
  if (!reticulate::py_available(initialize = FALSE) && nzchar(python)) {
    if (!file.exists(python)) .not_found(paste0("but the Python it was pointed at does not exist: ", python))
    reticulate::use_python(python, required = TRUE)
  }
  used <- tryCatch(reticulate::py_config()$python, error = function(e) "none found")
  if (!reticulate::py_available(initialize = TRUE)) .not_found(paste0("but no Python was found (", used, ")"))
  folder <- system.file("python", package = "dpinfer", mustWork = TRUE)
  bridge <- reticulate::import_from_path("dpinfer_r", path = folder, convert = FALSE)
  missing <- reticulate::py_to_r(bridge$missing)
  if (!is.null(missing)) {
    .not_found(paste0("which the Python R uses (", used, ") does not have (", missing, ")"))
  }
  .dp$bridge <- bridge
  bridge
}

#' Is the Python package dpinfer available?
#'
#' \code{TRUE} when the Python that dpinfer for R would use (see
#' \code{\link{dp_python}}) imports the Python package dpinfer.  Examples and
#' tests use it to run only where Python with dpinfer is installed.
#'
#' @return \code{TRUE} or \code{FALSE}.
#' @examples
#' dp_available()
#' @export
dp_available <- function() {
  isTRUE(tryCatch({
    .bridge()
    TRUE
  }, error = function(e) FALSE))
}

# Call `what` (a name in dpinfer's __all__, or a Python callable) with plain arguments.
# Python errors become R errors with the Python message; Python warnings R warnings.
# `convert`: a bridge function applied in Python to the value before it comes back.
.call <- function(what, args = list(), kwargs = list(), convert = NULL) {
  bridge <- .bridge()
  kwargs <- kwargs[!vapply(kwargs, is.null, logical(1))]
  py_kwargs <- if (length(kwargs)) reticulate::r_to_py(kwargs) else reticulate::dict()
  out <- bridge$call(what, reticulate::r_to_py(unname(args)), py_kwargs)
  err <- reticulate::py_to_r(reticulate::py_get_item(out, "error"))
  for (w in reticulate::py_to_r(reticulate::py_get_item(out, "warnings"))) warning(w, call. = FALSE)
  if (!is.null(err)) stop(err, call. = FALSE)
  value <- reticulate::py_get_item(out, "value")
  if (is.null(convert)) value else reticulate::py_to_r(bridge[[convert]](value))
}

# Whole numbers go to Python as int; beyond R's integers (2^31 - 1), where as.integer() gives NA,
# as a double, which Python takes as a whole number up to 2^53 (and refuses beyond, naming the
# limit).  A confidential value (a count to release) is never shown in the message, only described.
.whole <- function(x, name, confidential = FALSE) {
  if (is.numeric(x) && length(x) == 1L && is.finite(x) && x == round(x)) {
    return(if (abs(x) <= .Machine$integer.max) as.integer(x) else as.numeric(x))
  }
  shown <- if (confidential) "a value that is not (not shown: it is confidential)" else
    paste(format(x), collapse = ", ")
  stop(sprintf("`%s` must be one whole number; got %s.", name, shown), call. = FALSE)
}

# R's spelling of an alternative to Python's.
.alternative <- function(alternative) {
  choices <- c("two.sided", "less", "greater")
  if (!is.character(alternative) || length(alternative) < 1L) {
    stop("`alternative` must be one of \"two.sided\", \"less\", \"greater\".", call. = FALSE)
  }
  if (identical(alternative[[1L]], "two-sided")) return("two-sided")
  alt <- match.arg(alternative[[1L]], choices)
  if (alt == "two.sided") "two-sided" else alt
}

# R's conf.level checked lightly (Python checks the range and says so).
.level <- function(conf.level) {
  if (!is.numeric(conf.level) || length(conf.level) != 1L) {
    stop("`conf.level` must be a single number in (0, 1).", call. = FALSE)
  }
  as.numeric(conf.level)
}
