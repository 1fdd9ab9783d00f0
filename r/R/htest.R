# dpinfer's htest record (HTestResult.to_htest() plus the printed privacy lines) as an R htest.

.named <- function(x) {
  if (is.null(x)) return(NULL)
  unlist(lapply(x, function(v) if (is.null(v)) NA_real_ else v))
}

.as_htest <- function(h) {
  ci <- NULL
  if (!is.null(h[["conf.int"]])) {
    ends <- vapply(h[["conf.int"]], function(v) if (is.null(v)) NA_real_ else as.numeric(v), 0)
    ci <- structure(ends, conf.level = h[["conf.level"]])
  }
  # A test without a null value (independence) has no alternative line in R (chisq.test).
  alternative <- if (is.null(h[["null.value"]])) NULL else h[["alternative"]]
  out <- list(statistic = .named(h[["statistic"]]), parameter = .named(h[["parameter"]]),
              p.value = if (is.null(h[["p.value"]])) NA_real_ else h[["p.value"]],
              conf.int = ci, estimate = .named(h[["estimate"]]),
              null.value = .named(h[["null.value"]]), alternative = alternative,
              method = h[["method"]], data.name = h[["data.name"]])
  out <- out[!vapply(out, is.null, logical(1))]
  fields <- c("epsilon", "delta", "mechanism", "secure", "privacy.unit", "neighbours", "composition", "n.sim",
              "estimate.raw", "note")
  privacy <- h[fields]
  names(privacy) <- fields
  privacy$lines <- unlist(h[["privacy.lines"]])
  attr(out, "privacy") <- privacy
  class(out) <- c("dp_htest", "htest")
  out
}

# Run one dpinfer test and return it as an R htest.
.test <- function(what, args = list(), kwargs = list()) {
  .as_htest(.call(what, args, kwargs, convert = "htest"))
}

#' The privacy record of a dpinfer result
#'
#' Every test returns an object of class \code{c("dp_htest", "htest")}: the
#' fields of \code{\link[stats]{binom.test}}'s result, and an attribute
#' \code{"privacy"} with the release's \code{epsilon}, \code{delta},
#' \code{mechanism}, \code{secure} (\code{TRUE} when the hardened path drew the
#' noise, \code{FALSE} for a seeded research release), \code{privacy.unit},
#' \code{neighbours} (the neighbouring relation, e.g. \code{"replace-one"};
#' \code{NULL} for typed-in values), \code{composition} (two arms:
#' \code{"parallel"}, the larger epsilon, when the releases were charged to two
#' groups of one budget's parallel set, else \code{"sequential"}, the sum;
#' \code{NULL} for one release),
#' \code{n.sim} (Monte Carlo draws, \code{NULL} when exact), \code{estimate.raw}
#' and \code{note}.  \code{print()} shows R's \code{print.htest} block, then the
#' note and privacy lines that dpinfer prints in Python.
#'
#' @param x A result of \code{\link{dp_binom_test}}, \code{\link{dp_prop_test}}
#'   or \code{\link{dp_chisq_test}}.
#' @param ... Passed to \code{\link[stats]{print.htest}}.
#' @return \code{dp_privacy}: the privacy record (a list).  \code{print}: \code{x}, invisibly.
#' @examples
#' if (dp_available()) {
#'   rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
#'   res <- dp_binom_test(rel, p = 0.2, alternative = "greater")
#'   print(res)
#'   print(dp_privacy(res)$epsilon)
#' }
#' @export
dp_privacy <- function(x) {
  privacy <- attr(x, "privacy")
  if (is.null(privacy)) stop("`x` must be a dpinfer result (class \"dp_htest\").", call. = FALSE)
  privacy[names(privacy) != "lines"]
}

#' @rdname dp_privacy
#' @export
print.dp_htest <- function(x, ...) {
  NextMethod()
  lines <- attr(x, "privacy")$lines
  if (length(lines)) {
    cat(lines, sep = "\n")
    cat("\n")
  }
  invisible(x)
}

# broom's tidy() for a dpinfer result (registered in .onLoad when generics is installed):
# broom's columns for an htest plus the privacy parameters.
tidy.dp_htest <- function(x, ...) {
  one <- function(v) if (is.null(v)) NA else unname(v[[1L]])
  out <- data.frame(estimate = one(x$estimate), statistic = one(x$statistic), p.value = x$p.value,
                    parameter = one(x$parameter), conf.low = one(x$conf.int[1L]),
                    conf.high = if (is.null(x$conf.int)) NA else x$conf.int[[2L]],
                    method = x$method, alternative = if (is.null(x$alternative)) NA else x$alternative,
                    epsilon = attr(x, "privacy")$epsilon, delta = attr(x, "privacy")$delta,
                    mechanism = attr(x, "privacy")$mechanism, stringsAsFactors = FALSE)
  keep <- vapply(names(out), function(k) k %in% c("p.value", "method", "epsilon", "delta", "mechanism") ||
                   !all(is.na(out[[k]])), logical(1))
  out <- out[, keep, drop = FALSE]
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(out) else out
}
