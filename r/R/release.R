# Releasers and the privacy budget: R wrappers that keep the Python objects inside.

.seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  .whole(seed, "seed")
}

# `workers`: NULL (one serial stream), or the number of local Python processes (-1: every CPU)
.workers <- function(workers) {
  if (is.null(workers)) return(NULL)
  .whole(workers, "workers")
}

.new_release <- function(py_release) {
  record <- reticulate::py_to_r(.bridge()$release(py_release))
  value <- record$value
  if (identical(record$kind, "life_table")) {
    # arms x intervals x (events, censorings), from Python's nested lists (arm, interval, pair)
    value <- aperm(array(as.numeric(unlist(value)), dim = c(2L, length(record$breaks), length(record$groups))),
                   c(3L, 2L, 1L))
    dimnames(value) <- list(unlist(record$groups), NULL, c("events", "censored"))
  } else if (record$kind %in% c("paired", "clipped_sum")) {
    value <- as.numeric(unlist(value))  # (difference, discordant); (sum) or (sum, centred sum of squares)
  } else if (is.list(value)) value <- do.call(rbind, lapply(value, as.numeric))
  record$value <- value
  record$printed <- NULL
  structure(record, py = py_release, class = "dp_release")
}

.py_budget <- function(budget, group = NULL) {
  if (is.null(budget)) {
    if (!is.null(group)) stop("`group` needs a `budget` (its parallel set is the budget's).", call. = FALSE)
    return(NULL)
  }
  if (!inherits(budget, "dp_budget")) {
    stop("`budget` must be a dpinfer budget made by dp_budget().", call. = FALSE)
  }
  if (is.null(group)) return(attr(budget, "py"))
  if (!is.character(group) || length(group) != 2L || anyNA(group)) {
    stop("`group` must be NULL or c(set, name): group `name` of the budget's parallel set `set`.",
         call. = FALSE)
  }
  .call(.call(attr(budget, "py")$parallel, list(group[[1L]]))$group, list(group[[2L]]))
}

#' Privatize a count (or a contingency table)
#'
#' \code{dp_release_count} releases a count \code{x} out of \code{n} with the
#' Tulap mechanism (the release the exact DP-UMP tests of
#' \code{\link{dp_binom_test}} assume) or with Laplace noise on the proportion
#' \code{x / n}.  \code{dp_release_table} releases an r x c table of counts
#' with Laplace noise on every cell (for \code{\link{dp_chisq_test}}).
#'
#' Only the release leaves the function: its noisy value, the public
#' \code{n} and the privacy record; never \code{x}.  By default the noise comes
#' from the operating system's cryptographic source.  A \code{seed} gives the
#' reproducible research path: the same release on every run, hence
#' predictable; never pass a seed when privatizing real data.  With a
#' \code{budget}, the budget is charged before any noise is drawn, and a
#' release that would pass its total is refused.
#'
#' @param x The confidential count (a whole number in \code{0..n}); for
#'   \code{dp_release_table}, a matrix of whole counts.
#' @param n The public number of records.
#' @param epsilon,delta The privacy parameters (\code{delta} only for Tulap).
#' @param mechanism \code{"tulap"} (a noisy count, the default) or
#'   \code{"laplace"} (a noisy proportion).
#' @param seed \code{NULL} (the hardened path) or a whole number (research
#'   only: a reproducible, predictable release).
#' @param budget \code{NULL} or a budget from \code{\link{dp_budget}} to charge.
#' @param group \code{NULL}, or \code{c(set, name)}: charge group \code{name}
#'   of the budget's parallel set \code{set} (disjoint groups of people, e.g.
#'   the arms of a trial: parallel composition).  The release records the
#'   group, and \code{\link{dp_prop_test}} then states parallel composition
#'   for two releases of different groups of one set.
#' @return An object of class \code{"dp_release"}: a list with \code{value},
#'   \code{mechanism}, \code{epsilon}, \code{delta}, \code{sensitivity},
#'   \code{n}, \code{kind}, \code{secure}, \code{neighbours},
#'   \code{privacy_unit}, \code{ledger_digest} and \code{disjoint} (the
#'   parallel set and group charged, or \code{NULL}).  The tests of this package
#'   take it in place of a released value.
#' @examples
#' if (dp_available()) {
#'   rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)   # research only: seeded
#'   print(rel)
#'   print(rel$value)
#'   tab <- dp_release_table(matrix(c(40, 15, 10, 35), 2), epsilon = 1, seed = 3)
#'   tab$value
#' }
#' @export
dp_release_count <- function(x, n, epsilon, delta = 0, mechanism = c("tulap", "laplace"),
                             seed = NULL, budget = NULL, group = NULL) {
  mechanism <- match.arg(mechanism)
  kwargs <- list(rng = .seed(seed), budget = .py_budget(budget, group))
  if (mechanism == "tulap") {
    releaser <- .call("TulapReleaser", list(epsilon, delta))
    rel <- .call(releaser$release, list(.whole(x, "x", confidential = TRUE), .whole(n, "n")), kwargs)
  } else {
    if (!identical(as.numeric(delta), 0)) {
      stop(sprintf("`delta` must be 0 for the Laplace mechanism; got %s.", format(delta)), call. = FALSE)
    }
    releaser <- .call("LaplaceReleaser", list(epsilon))
    rel <- .call(releaser$proportion, list(.whole(x, "x", confidential = TRUE), .whole(n, "n")), kwargs)
  }
  .new_release(rel)
}

#' @rdname dp_release_count
#' @export
dp_release_table <- function(x, epsilon, seed = NULL, budget = NULL, group = NULL) {
  if (!is.matrix(x) || !is.numeric(x)) {
    stop("`x` must be a numeric matrix of counts (an r x c table).", call. = FALSE)
  }
  # rows as lists of integers: an R matrix would reach Python as a NumPy array, which
  # reticulate 1.28 cannot build against NumPy 2 ("incompatible NumPy binary version")
  rows <- lapply(seq_len(nrow(x)), function(i) {
    row <- x[i, ]
    if (any(!is.finite(row)) || any(row != round(row))) {
      stop(sprintf("`x` must hold whole counts; row %d does not.", i), call. = FALSE)
    }
    as.list(as.integer(row))
  })
  releaser <- .call("ContingencyTableReleaser", list(epsilon))
  rel <- .call(releaser$release, list(rows), list(rng = .seed(seed), budget = .py_budget(budget, group)))
  .new_release(rel)
}

#' @export
print.dp_release <- function(x, ...) {
  cat(reticulate::py_to_r(.bridge()$release(attr(x, "py")))$printed, "\n", sep = "")
  invisible(x)
}

#' A privacy budget for one data set
#'
#' The total \code{epsilon} and \code{delta} approved for one data set.  Give
#' it to \code{\link{dp_release_count}} or \code{\link{dp_release_table}}
#' (\code{budget =}): each release is charged before its noise is drawn, and a
#' release that would pass the total is refused with an error, before any draw.
#' The budget is a reference: every release charges the same ledger.
#'
#' @param epsilon,delta The approved totals.
#' @param description A label kept with the ledger.
#' @param x A budget.
#' @param ... Unused.
#' @return \code{dp_budget}: an object of class \code{"dp_budget"}.
#'   \code{dp_spent}: a list with \code{epsilon}, \code{delta}, \code{spent.epsilon},
#'   \code{spent.delta}, \code{remaining.epsilon}, \code{remaining.delta} and
#'   \code{entries} (the number of ledger entries).
#' @examples
#' if (dp_available()) {
#'   b <- dp_budget(epsilon = 2)
#'   rel <- dp_release_count(11, 30, epsilon = 1, seed = 1, budget = b)
#'   print(dp_spent(b)$remaining.epsilon)
#'   try(dp_release_count(11, 30, epsilon = 1.5, seed = 2, budget = b))   # refused
#' }
#' @export
dp_budget <- function(epsilon, delta = 0, description = "") {
  py_budget <- .call("PrivacyBudget", list(epsilon, delta), list(description = description))
  structure(list(), py = py_budget, class = "dp_budget")
}

#' @rdname dp_budget
#' @export
dp_spent <- function(x) {
  if (!inherits(x, "dp_budget")) stop("`x` must be a budget made by dp_budget().", call. = FALSE)
  out <- reticulate::py_to_r(.bridge()$budget(attr(x, "py")))
  out[names(out) != "printed"]
}

#' @rdname dp_budget
#' @export
print.dp_budget <- function(x, ...) {
  cat(reticulate::py_to_r(.bridge()$budget(attr(x, "py")))$printed, "\n", sep = "")
  invisible(x)
}
