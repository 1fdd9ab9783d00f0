# The price of privacy in dp_power_prop_test: the non-private comparators of a planning result.

# The comparators of `plan` (the flat dict of a Python PowerResult or SampleSizesResult) as
# power.htest components, which print.power.htest prints one line each.
.price_of_privacy <- function(plan) {
  pair <- function(a, b) if (is.null(a)) NULL else if (a == b) a else c(a, b)
  out <- if (!"nonprivate_n1" %in% names(plan)) {
    list(nonprivate.power = plan$nonprivate_power, normal.power = plan$normal_power,
         price.power = plan$price_power)
  } else {
    list(nonprivate.n = pair(plan$nonprivate_n1, plan$nonprivate_n2),
         normal.n = pair(plan$normal_n1, plan$normal_n2),
         price.n = pair(plan$price_n1, plan$price_n2), price.total = plan$price_total)
  }
  out[!vapply(out, is.null, logical(1))]
}

# What the comparator lines mean, for the note.
.price_note <- function(plan) {
  if (!"nonprivate_n1" %in% names(plan)) {
    return(paste0("nonprivate.power: the same exact test (", plan$statistic, " ordering) without the privacy ",
                  "noise (epsilon = Inf: a randomized exact test); normal.power: power.prop.test's; ",
                  "price.power = nonprivate.power - power"))
  }
  paste0("nonprivate.n: the same exact test (", plan$statistic, " ordering) without the privacy noise ",
         "(epsilon = Inf: a randomized exact test); normal.n: power.prop.test's; price.n = n - nonprivate.n ",
         "(per group), price.total for both")
}

# The planning results of the Python package are a float, an int and a tuple with the
# comparators beside; reticulate converts only the exact builtin types, so these give it
# the number they are (as `py$binom2_ump_power(...)` gave before they carried the comparators).
#' @export
py_to_r.dpinfer.results.PowerResult <- function(x) {
  reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$float(x))
}

#' @export
py_to_r.dpinfer.results.SampleSizeResult <- function(x) {
  reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$int(x))
}

#' @export
py_to_r.dpinfer.results.SampleSizesResult <- function(x) {
  reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$tuple(x))
}
