console.log("svc")
