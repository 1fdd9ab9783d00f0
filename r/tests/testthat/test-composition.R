# One composition rule (issue 35): the same two releases get the same privacy line in R as in
# Python, for every method.  Expected epsilons are computed here from the releasers' epsilons
# (1 and 0.5): the larger for two groups of one parallel set, the sum without a budget.

privacy_line <- function(res) {
  lines <- attr(res, "privacy")$lines
  lines[startsWith(lines, "privacy:")]
}

test_that("two groups of one budget's parallel set: parallel composition, the larger epsilon", {
  skip_without_dpinfer()
  b <- dp_budget(epsilon = 3)
  for (mechanism in c("tulap", "laplace")) {
    a1 <- dp_release_count(23, 60, epsilon = 1, mechanism = mechanism, seed = 11, budget = b,
                           group = c(paste("arms", mechanism), "treatment"))
    a2 <- dp_release_count(12, 60, epsilon = 0.5, mechanism = mechanism, seed = 12, budget = b,
                           group = c(paste("arms", mechanism), "control"))
    expect_identical(a1$disjoint[[2]], "treatment")
    methods <- if (mechanism == "tulap") list(NULL) else list(NULL, "ump", "normal", "jimi")
    for (method in methods) {
      res <- dp_prop_test(list(a1, a2), method = method)
      expect_identical(dp_privacy(res)$epsilon, 1)
      expect_identical(dp_privacy(res)$composition, "parallel")
      expect_identical(dp_privacy(res)$neighbours, "replace-one")
      expect_true(startsWith(privacy_line(res), "privacy: epsilon = 1, delta = 0, parallel composition"))
    }
  }
  # the budget paid for the larger group of each set: 1 + 1
  expect_identical(dp_spent(b)$spent.epsilon, 2)
})

test_that("releases without a budget: sequential composition, the sum, as in Python", {
  skip_without_dpinfer()
  for (mechanism in c("tulap", "laplace")) {
    a1 <- dp_release_count(23, 60, epsilon = 1, mechanism = mechanism, seed = 11)
    a2 <- dp_release_count(12, 60, epsilon = 0.5, mechanism = mechanism, seed = 12)
    expect_null(a1$disjoint)
    methods <- if (mechanism == "tulap") list(NULL) else list(NULL, "ump", "normal", "jimi")
    for (method in methods) {
      res <- dp_prop_test(list(a1, a2), method = method)
      expect_identical(dp_privacy(res)$epsilon, 1.5)
      expect_identical(dp_privacy(res)$composition, "sequential")
      expect_true(startsWith(privacy_line(res), "privacy: epsilon = 1.5, delta = 0, sequential composition"))
    }
    py <- py_dpinfer()
    make <- function(e, x, s) {
      if (mechanism == "tulap") py$TulapReleaser(e)$release(as.integer(x), 60L, rng = as.integer(s))
      else py$LaplaceReleaser(e)$proportion(as.integer(x), 60L, rng = as.integer(s))
    }
    ref <- py$prop_test(make(1, 23, 11), make(0.5, 12, 12))
    expect_identical(dp_privacy(dp_prop_test(list(a1, a2)))$epsilon, ref$epsilon)
    expect_identical(dp_prop_test(list(a1, a2))$p.value, ref$pvalue)
  }
})

test_that("composition is passed on, checked, and a group needs a budget", {
  skip_without_dpinfer()
  typed <- dp_prop_test(c(23.5, 12.25), c(60, 60), epsilon = 1, composition = "parallel")
  expect_identical(dp_privacy(typed)$epsilon, 1)
  expect_identical(dp_privacy(dp_prop_test(c(23.5, 12.25), c(60, 60), epsilon = 1))$epsilon, 2)
  expect_error(dp_prop_test(c(23.5, 12.25), c(60, 60), epsilon = 1, composition = "max"),
               "`composition` must be None, 'sequential' or 'parallel'")
  expect_error(dp_release_count(3, 10, epsilon = 1, seed = 1, group = c("arms", "A")),
               "`group` needs a `budget`")
  expect_error(dp_release_count(3, 10, epsilon = 1, seed = 1, budget = dp_budget(1), group = "A"),
               "`group` must be NULL or c\\(set, name\\)")
})
