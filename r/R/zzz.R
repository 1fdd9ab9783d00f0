# Register tidy() for broom users when the generics package (broom's home of tidy) is loaded;
# dpinfer for R does not require broom.
.register_s3 <- function(pkg, generic, class, method) {
  register <- function(...) {
    registerS3method(generic, class, method, envir = asNamespace(pkg))
  }
  if (isNamespaceLoaded(pkg)) register()
  setHook(packageEvent(pkg, "onLoad"), function(...) register())
}

.onLoad <- function(libname, pkgname) {
  .register_s3("generics", "tidy", "dp_htest", tidy.dp_htest)
  invisible()
}
